'use strict';
const fs = require('fs');

async function persist(data) {
  await fs.promises.writeFile('/var/lib/queue/state.json', JSON.stringify(data));
}

module.exports = { persist };
