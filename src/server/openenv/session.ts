import { HTTPException } from 'hono/http-exception';
import type { WebSocket } from 'ws';
import { EpisodeError, type FieldError } from '../../episodes/errors.js';
import { Checker } from '../../episodes/validate.js';
import { INTERNAL_ERROR_DETAIL } from '../error-response.js';
import { isPlainObject, parseJson } from '../json-body.js';
import type { OpenEnv, OpenEnvResult, OpenEnvState } from './env.js';

/** OpenEnv's error codes (WSErrorCode) that ToolEnv sends. */
export type OpenEnvErrorCode =
  | 'INVALID_JSON'
  | 'UNKNOWN_TYPE'
  | 'VALIDATION_ERROR'
  | 'EXECUTION_ERROR'
  | 'CAPACITY_REACHED';

export type OpenEnvReply =
  | { type: 'observation'; data: OpenEnvResult<unknown> }
  | { type: 'state'; data: OpenEnvState }
  | { type: 'error'; data: { message: string; code: OpenEnvErrorCode; errors?: FieldError[] } };

/** The members each message type takes (OpenEnv's messages forbid others). */
const MEMBERS: Record<string, readonly string[]> = {
  reset: ['type', 'data'],
  step: ['type', 'data'],
  state: ['type'],
  close: ['type'],
};

/** A close code the peer may act on: try again later (RFC 6455 registry). */
const TRY_AGAIN_LATER = 1013;

/**
 * One WebSocket connection to `/openenv/ws`: one OpenEnv session, holding at most one live episode. Every text
 * frame is one message answered by one reply, in order (a message waits for the one before it: a reset must not
 * delete the episode a step is still running in). A reset replaces the session's episode; `close`, or the
 * connection closing, ends it. An error reply leaves the session open, except the live-episode cap
 * (CAPACITY_REACHED), after which the connection is closed.
 */
export class OpenEnvSession {
  private episode: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly env: OpenEnv,
    private readonly socket: WebSocket,
    private readonly log: (line: string) => void,
  ) {
    // The default binaryType hands every frame over as one Buffer: binary frames are read as UTF-8 text too.
    socket.on('message', (data) => (this.queue = this.queue.then(() => this.receive(String(data)))));
    socket.on('close', () => this.end());
    // ws emits protocol errors (a frame over maxPayload, bad framing) before it closes: 'close' does the rest.
    socket.on('error', () => {});
  }

  private async receive(text: string): Promise<void> {
    if (this.closed) return;
    let reply: OpenEnvReply | undefined;
    try {
      reply = await this.answer(text);
    } catch (error) {
      reply = errorReply(error, this.log);
    }
    // A connection that closed meanwhile ended the episode; nobody reads the reply.
    if (this.closed) return;
    if (reply) this.socket.send(JSON.stringify(reply));
    if (reply?.type === 'error' && reply.data.code === 'CAPACITY_REACHED')
      this.socket.close(TRY_AGAIN_LATER, 'live-episode cap reached');
  }

  /** The reply to one message; undefined for `close`, which closes the connection instead. */
  private async answer(text: string): Promise<OpenEnvReply | undefined> {
    let message: unknown;
    try {
      message = parseJson(text, 'the message');
    } catch (error) {
      return failure('INVALID_JSON', (error as Error).message);
    }
    if (!isPlainObject(message))
      return failure(
        'VALIDATION_ERROR',
        'a message must be a JSON object {"type": "reset" | "step" | "state" | "close", "data"?: …}',
      );
    const members = typeof message.type === 'string' ? MEMBERS[message.type] : undefined;
    if (!members)
      return failure(
        'UNKNOWN_TYPE',
        `Unknown message type: ${JSON.stringify(message.type) ?? 'none'} (known: ${Object.keys(MEMBERS).join(', ')})`,
      );
    const check = new Checker();
    check.members(message, '', members);
    if (message.type === 'step' && message.data === undefined)
      check.add('/data', 'is required: the action, {"text": "<the model message>"}');
    if (check.errors.length > 0)
      return failure(
        'VALIDATION_ERROR',
        `invalid ${message.type} message: ${check.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
        check.errors,
      );

    switch (message.type) {
      case 'reset': {
        const config = await this.env.config(message.data);
        this.endEpisode();
        const result = this.env.start(config);
        this.episode = result.observation.episode_id;
        return { type: 'observation', data: result };
      }
      case 'step':
        if (this.episode === undefined)
          return failure('EXECUTION_ERROR', 'this session has no episode yet: send a reset first');
        return { type: 'observation', data: await this.env.step(this.episode, message.data, '/data') };
      case 'state':
        return {
          type: 'state',
          data:
            this.episode === undefined
              ? { episode_id: null, step_count: 0, done: false }
              : this.env.state(this.episode),
        };
      default: // close
        this.end();
        this.socket.close(1000);
        return undefined;
    }
  }

  private end(): void {
    this.closed = true;
    this.endEpisode();
  }

  private endEpisode(): void {
    if (this.episode !== undefined) this.env.end(this.episode);
    this.episode = undefined;
  }
}

function failure(code: OpenEnvErrorCode, message: string, errors?: FieldError[]): OpenEnvReply {
  return { type: 'error', data: { message, code, ...(errors ? { errors } : {}) } };
}

/**
 * A refusal as OpenEnv's error codes: a bad body is VALIDATION_ERROR, the cap CAPACITY_REACHED, the rest
 * EXECUTION_ERROR.
 */
function errorReply(error: unknown, log: (line: string) => void): OpenEnvReply {
  if (error instanceof EpisodeError) {
    if (error.status === 400) return failure('VALIDATION_ERROR', error.message, error.errors);
    return failure(error.status === 429 ? 'CAPACITY_REACHED' : 'EXECUTION_ERROR', error.message);
  }
  if (error instanceof HTTPException) return failure('EXECUTION_ERROR', error.message);
  log(`toolenv: openenv session: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return failure('EXECUTION_ERROR', INTERNAL_ERROR_DETAIL);
}
