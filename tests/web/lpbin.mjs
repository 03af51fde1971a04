// The linkperf binary under test and its options document, for the page's Node tests: the
// form is built from what `linkperf ui --options` prints (the same document the page reads
// from GET /api/options), so the tests hold no option knowledge of their own. ctest passes
// the binary in LINKPERF; run by hand, build/linkperf is used.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const LINKPERF = process.env.LINKPERF ||
  path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'build', 'linkperf');

export function optionsDoc() {
  try {
    return JSON.parse(execFileSync(LINKPERF, ['ui', '--options'], { encoding: 'utf8' }));
  } catch (e) {
    throw new Error('cannot read the options document from ' + LINKPERF + ' ui --options (build linkperf, or set LINKPERF): ' + e.message);
  }
}

// The CLI's verdict on a command line that must be refused: its exit status and the message
// after "linkperf: ". A line the CLI accepted would run a test: it gets 20 s, aimed at
// 127.0.0.1, and the caller's assertion fails on its status.
export function cliRefusal(args) {
  const r = spawnSync(LINKPERF, args, { encoding: 'utf8', timeout: 20000 });
  return { status: r.status, message: String(r.stderr || '').replace(/^linkperf: /, '').replace(/\n$/, '') };
}
