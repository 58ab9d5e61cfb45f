var fs = require("fs"),
	pth = require("path");

module.exports = {
	Errors: {
		NO_ZIP: "No zip file was loaded",
		CANT_EXTRACT_FILE: "Could not extract the file"
	},
	makeDir: function (path) {
		fs.mkdirSync(path, { recursive: true });
	},
	writeFileTo: function (path, content, overwrite) {
		if (fs.existsSync(path) && !overwrite) {
			return false;
		}
		fs.mkdirSync(pth.dirname(path), { recursive: true });
		fs.writeFileSync(path, content);
		return true;
	}
};
