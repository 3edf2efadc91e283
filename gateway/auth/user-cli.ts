/**
 * `pkgcat user add <username> --users <file>`: the password comes from standard input, either
 * piped (`printf '%s\n' "$PW" | pkgcat user add alice --users users.json`, first line) or typed at
 * a terminal (not echoed, asked twice).
 */
import type { Readable, Writable } from 'node:stream';
import { addUser, checkPassword, checkUsername, UsersFileError } from './users.ts';

const MAX_PIPED_BYTES = 64 * 1024;

type TtyInput = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/** Reads a piped password: everything up to an optional final newline, which must be the only one. */
async function readPiped(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_PIPED_BYTES) throw new UsersFileError('the password on standard input is too long');
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (/[\r\n]/.test(text)) throw new UsersFileError('standard input must hold the password on a single line');
  return text;
}

/** Reads one line from a terminal with echo off. */
function readHidden(input: TtyInput, output: Writable, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(prompt);
    input.setRawMode?.(true);
    input.resume();
    let text = '';
    const finish = (error: Error | null): void => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string): void => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish(null);
        if (char === '\u0003') return finish(new UsersFileError('cancelled'));
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else text += char;
      }
    };
    input.on('data', onData);
  });
}

/** The new password from standard input (see the module comment). */
export async function readPassword(input: Readable = process.stdin, output: Writable = process.stderr): Promise<string> {
  const tty = input as TtyInput;
  if (!tty.isTTY) return readPiped(input);
  const first = await readHidden(tty, output, 'Password: ');
  checkPassword(first);
  const second = await readHidden(tty, output, 'Repeat password: ');
  if (first !== second) throw new UsersFileError('the passwords do not match');
  return first;
}

export interface UserAddOptions {
  readonly username: string;
  readonly usersFile: string;
  readonly input?: Readable;
  readonly output?: Writable;
}

/**
 * Runs `pkgcat user add`: checks the username before asking for the password, then creates or
 * replaces the user. Throws `UsersFileError` with a one-line reason on bad input.
 */
export async function runUserAdd(options: UserAddOptions): Promise<{ created: boolean }> {
  const output = options.output ?? process.stderr;
  checkUsername(options.username);
  const password = await readPassword(options.input ?? process.stdin, output);
  checkPassword(password);
  const result = await addUser(options.usersFile, options.username, password);
  output.write(`pkgcat: ${result.created ? 'added' : 'replaced'} user ${options.username} in ${options.usersFile} (mode 0600)\n`);
  return result;
}
