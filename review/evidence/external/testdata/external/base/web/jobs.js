'use strict';
const fs = require('fs');

async function persist(data) {
  await fs.promises.writeFile('/var/lib/jobs/state.json', JSON.stringify(data));
}

function flush(state) {
  persist(state);
}

module.exports = { flush };
