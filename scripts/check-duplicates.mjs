// Counts the copied blocks in the source (jscpd: six or more lines of the same tokens) and fails when there are
// more than the budget below. The budget only ever goes down: when a change removes copies, lower it to the new
// count in the same commit (docs/code-health.md says how), so that copies cannot creep back in unnoticed.
import { createRequire } from 'node:module';

// jscpd 4.1's ES module build imports 'colors/safe' without an extension, which Node refuses; its CommonJS build works.
const { detectClones } = createRequire(import.meta.url)('jscpd');

// Clones found on main on 2026-11-26 (30), while issue 20 was cutting duplicates: lower it as they go.
const MAX_CLONES = 2;

const clones = await detectClones({
  path: ['apps/server/src', 'apps/web/src', 'packages/shared/src'],
  format: ['typescript', 'tsx'],
  minLines: 6,
  minTokens: 50,
  gitignore: true,
  silent: true,
  reporters: [],
});

const where = (d) => `${d.sourceId}:${d.start.line}-${d.end.line}`;
if (clones.length > MAX_CLONES) {
  for (const c of clones) console.log(`  ${where(c.duplicationA)}  =  ${where(c.duplicationB)}`);
  console.error(
    `Duplicate code: ${clones.length} copied blocks, over the budget of ${MAX_CLONES} in scripts/check-duplicates.mjs. ` +
      'Make the copies above share one function or component (or, if a copy is right, say why in review and raise the budget).',
  );
  process.exit(1);
}
console.log(`Duplicate code: ${clones.length} copied blocks (budget ${MAX_CLONES}).`);
if (clones.length < MAX_CLONES) console.log(`  Lower MAX_CLONES in scripts/check-duplicates.mjs to ${clones.length} so they stay gone.`);
