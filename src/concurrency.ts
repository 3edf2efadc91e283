/** Bounds on concurrent work, shared by the build and the gateway. */

/**
 * At most `size` tasks at a time; the others wait their turn, first come first served. Bounds the
 * work that holds large buffers (assembling or compressing a body) whatever the traffic or the
 * size of a commit.
 */
export class Semaphore {
  readonly size: number;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new Error(`a semaphore needs a size of 1 or more, got ${size}`);
    this.size = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so the count never dips below the work in progress.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }

  stats(): { running: number; waiting: number; size: number } {
    return { running: this.#running, waiting: this.#waiting.length, size: this.size };
  }
}
