// SPDX-License-Identifier: GPL-2.0
// Roll each expression N times with rpg-dice-roller: node roll.js N EXPR...
const { DiceRoll } = require('@dice-roller/rpg-dice-roller');
const n = parseInt(process.argv[2]);
const out = {};
for (const e of process.argv.slice(3)) {
  try {
    const t = [];
    for (let i = 0; i < n; i++) t.push(new DiceRoll(e).total);
    out[e] = t;
  } catch (err) { out[e] = String(err.message || err).slice(0, 120); }
}
console.log(JSON.stringify(out));
