var fs = require("fs"),
	pth = require("path");

module.exports = {
	Errors: {
		NO_ZIP: "No zip file was loaded"
	},
	makeDir: function (path) {
		fs.mkdirSync(path, { recursive: true });
	},
	writeFileToAsync: function (path, content, overwrite, callback) {
		fs.mkdir(pth.dirname(path), { recursive: true }, function () {
			fs.writeFile(path, content, { flag: overwrite ? "w" : "wx" }, function (err) {
				callback(!err);
			});
		});
	}
};
