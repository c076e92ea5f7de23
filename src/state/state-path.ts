/**
 * The file a --state-file path stands for, the same whichever path reached it: the lock
 * (state-lock.ts) and the saves (state-file.ts) both go by it.
 * - symbolic links are followed, the file's own and its directories' (state kept on another
 *   volume through a link);
 * - a link to a file that does not exist yet (the first run) stands for the file it names: a save
 *   renamed over the link put a plain file in its place, and nothing reached the other volume;
 * - a path that does not exist stands for itself in its directory, resolved: two servers given
 *   `real/sim.bin` and `link-to-real/sim.bin` before either had saved took two locks for one file.
 */
import { readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

/** Links followed at most, as the kernel's own limit (ELOOP): a loop of links ends here. */
const MAX_LINKS = 40

export function stateFilePath(given: string): string {
  try {
    return realpathSync(given)
  } catch {
    // Not there yet: follow the links it is, then resolve the directory of what they name.
  }
  let path = resolve(given)
  for (let links = 0; links < MAX_LINKS; links++) {
    let target: string
    try {
      target = readlinkSync(path)
    } catch {
      break
    }
    path = resolve(dirname(path), target)
  }
  try {
    return join(realpathSync(dirname(path)), basename(path))
  } catch {
    return path
  }
}
