// What /proc (Linux) says of a process, for the benches that measure other processes.
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of a process, in bytes; 0 once it has gone. */
export function rss(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The fields of /proc/<pid>/stat after the command name (the first is the state): null once gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time a process has used (user + system), in seconds (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : 0;
}

/** The processes that `parent` started and that still run. */
export function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((pid) => pid > 0 && Number(statFields(pid)?.[1]) === parent);
}

/** CPU seconds used by every running process whose command is `command` (e.g. PostgreSQL's). */
export function commandCpuSeconds(command: string): number {
  let seconds = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command)
        seconds += cpuSeconds(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return seconds;
}
