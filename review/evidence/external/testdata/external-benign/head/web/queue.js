'use strict';
const fs = require('fs');

async function persist(data) {
  await fs.promises.writeFile('/var/lib/queue/state.json', JSON.stringify(data));
}

async function record(state, entry) {
  state.entries.push(entry);
  await persist(state);
  return state.entries.length;
}

module.exports = { persist, record };
