const fs = require("fs");
const path = require("path");

function money(cents) {
  return (cents / 100).toFixed(2);
}

function percent(part, whole) {
  if (whole === 0) {
    return "0%";
  }
  return Math.round((part / whole) * 100) + "%";
}

function template(name) {
  return fs.readFileSync(path.join(__dirname, "templates", name + ".html"), "utf8");
}

module.exports = { money, percent, template };
