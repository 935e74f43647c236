/**
 * The end of a benchmark child process (a fresh process per measured run): its result as one JSON
 * line on stdout for the parent to read, or the error on stderr and exit 1.
 */
export function reportAndExit(work: Promise<unknown>): void {
  work.then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
