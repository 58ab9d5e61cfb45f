const childProcess = require("child_process");
const fs = require("fs");

function legacy(cmd) {
  childProcess.exec(cmd);
}

function thumbnail(req, res) {
  childProcess.exec("convert " + req.query.file + " thumb.png");
  res.end(fs.readFileSync("static/done.html"));
}

module.exports = { legacy, thumbnail };
