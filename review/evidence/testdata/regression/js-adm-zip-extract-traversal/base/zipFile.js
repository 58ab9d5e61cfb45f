var fs = require("fs");

// ZipFile reads the central directory of an archive into entries (reading elided here).
module.exports = function (input) {
	var buffer = typeof input === "string" ? fs.readFileSync(input) : input;
	return { buffer: buffer, entries: [] };
};
