/**
 * Back-pressure for the model responders: at most `concurrency` tasks run (one per context sequence, or per
 * connection to a remote server), at most `maxWaiting` more wait their turn, and anything past that is refused at
 * once with a ResponderBusyError rather than piling up.
 */

/**
 * Thrown by `Responder.respond` when the responder's queue is full. The pipeline answers the call with a 503 problem
 * carrying `Retry-After: retryAfterSeconds` instead of asking the next responder, and does not cache it.
 */
export class ResponderBusyError extends Error {
  readonly retryAfterSeconds: number;

  constructor(what: string, retryAfterSeconds: number) {
    super(`${what} is busy: every slot is taken and the queue is full; retry after ${retryAfterSeconds} s`);
    this.name = 'ResponderBusyError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface QueueOptions {
  /** Names the queue's owner in the busy message. */
  name: string;
  concurrency: number;
  maxWaiting: number;
}

export class BoundedQueue {
  readonly name: string;
  readonly concurrency: number;
  readonly maxWaiting: number;
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  /** Moving average of a task's seconds, for Retry-After. */
  private averageSeconds = 1;
  private idlers: (() => void)[] = [];

  constructor(options: QueueOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
      throw new Error(`queue ${options.name}: concurrency must be a positive integer`);
    if (!Number.isInteger(options.maxWaiting) || options.maxWaiting < 0)
      throw new Error(`queue ${options.name}: maxWaiting must be a non-negative integer`);
    this.name = options.name;
    this.concurrency = options.concurrency;
    this.maxWaiting = options.maxWaiting;
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Runs `task` when a slot frees up. Throws ResponderBusyError at once when the queue is full; rejects with the
   * signal's reason if `signal` aborts while the task is still waiting.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.active >= this.concurrency) {
      if (this.waiters.length >= this.maxWaiting) throw new ResponderBusyError(this.name, this.retryAfterSeconds());
      await this.wait(signal);
    } else {
      this.active++;
    }
    const started = performance.now();
    try {
      return await task();
    } finally {
      this.averageSeconds = 0.8 * this.averageSeconds + 0.2 * ((performance.now() - started) / 1000);
      this.release();
    }
  }

  /** Resolves once nothing runs or waits (at once if nothing does). */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiters.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  /** Seconds until the queue has likely drained by one slot's worth: the waiting tasks' expected run time per slot. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.averageSeconds * (this.waiters.length + 1)) / this.concurrency));
  }

  private wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(start);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      // The slot is handed over by release(): `active` is not decremented and re-incremented in between.
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(start);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) return next();
    this.active--;
    if (this.active === 0) for (const resolve of this.idlers.splice(0)) resolve();
  }
}
