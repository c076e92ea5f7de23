/** Where a command writes: the process's stdout and stderr, or a test's buffers. */
export interface Output {
  out(text: string): void
  err(text: string): void
}

export const stdio: Output = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text)
}
