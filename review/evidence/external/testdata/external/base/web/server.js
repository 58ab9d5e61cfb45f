const childProcess = require("child_process");

function legacy(cmd) {
  childProcess.exec(cmd);
}

module.exports = { legacy };
