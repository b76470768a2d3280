/** Reads a process's CPU time and resident memory from /proc (Linux). */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

export interface ProcSample {
  /** User + system CPU time, seconds. */
  cpuSeconds: number;
  /** Resident set size, bytes. */
  rssBytes: number;
  at: number;
}

/** User + system CPU time of a /proc stat file (a process's or one thread's), seconds. */
function statCpuSeconds(file: string): number {
  const stat = fs.readFileSync(file, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU time of the processes' main threads alone (a Node server's event loop), summed, seconds:
 * their worker threads' time is left out.
 */
export function mainThreadCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + statCpuSeconds(`/proc/${pid}/task/${pid}/stat`), 0);
}

export function sampleProcess(pid: number): ProcSample {
  const cpuSeconds = statCpuSeconds(`/proc/${pid}/stat`);
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return {
    cpuSeconds,
    rssBytes: rssKb * 1024,
    at: performance.now(),
  };
}

/** CPU used between two samples, in cores (1.0 = one core busy all the time). */
export function cpuCores(from: ProcSample, to: ProcSample): number {
  return (to.cpuSeconds - from.cpuSeconds) / ((to.at - from.at) / 1_000);
}

/** Several processes as one (the instances of a target): CPU time and RSS summed. */
export function sampleProcesses(pids: readonly number[]): ProcSample {
  const samples = pids.map(sampleProcess);
  return {
    cpuSeconds: samples.reduce((sum, sample) => sum + sample.cpuSeconds, 0),
    rssBytes: samples.reduce((sum, sample) => sum + sample.rssBytes, 0),
    at: performance.now(),
  };
}

/** The whole machine's busy CPU time so far (every process and the kernel), seconds. */
export function machineCpuSeconds(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal …: all but idle and iowait are busy.
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = [0, 1, 2, 5, 6, 7].reduce((sum, index) => sum + (fields[index] ?? 0), 0);
  return busy / TICKS_PER_SECOND;
}

/**
 * Now, µs, on CLOCK_MONOTONIC (what `process.hrtime` reads on Linux): one clock for every process
 * of the machine, so times taken in different processes subtract (`performance.now()` counts
 * from each process's own start).
 */
export const monotonicMicros = (): number => Number(process.hrtime.bigint()) / 1_000;
