import { connect, type Socket } from 'node:net';

/** One answer: its status, its head (status line and headers) and its body text. */
export interface HttpAnswer {
  status: number;
  head: string;
  body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/**
 * One keep-alive HTTP/1.1 connection that sends one request at a time: the rollout bench's load generator. node's
 * own http client costs about 85 µs of CPU per request and undici about 38 µs, against about 16 µs for this one:
 * on a 2-core machine the generator shares the cores with the server it measures, so its own cost decides how much
 * of the machine the server gets. It reads what a ToolEnv server sends: a status line, headers, and a body framed
 * by Content-Length or chunked.
 */
export class HttpConnection {
  private readonly socket: Socket;
  private readonly hostHeader: string;
  private buffered: Buffer | undefined;
  private waiting: { resolve: (answer: HttpAnswer) => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(socket: Socket, host: string) {
    this.socket = socket;
    this.hostHeader = host;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the server closed the connection')));
  }

  /** Connects to `url`'s host and port (http only). */
  static open(url: string): Promise<HttpConnection> {
    const { hostname, port, host } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port || 80), hostname);
      socket.once('connect', () => resolve(new HttpConnection(socket, host)));
      socket.once('error', reject);
    });
  }

  /** Sends one request and resolves with its answer; rejects when the connection fails. */
  request(method: string, path: string, body?: string): Promise<HttpAnswer> {
    if (this.failure) return Promise.reject(new Error(`${method} ${path}: ${this.failure.message}`));
    if (this.waiting) return Promise.reject(new Error('a request is already in flight on this connection'));
    const head = `${method} ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`;
    this.socket.write(
      body === undefined
        ? `${head}\r\n`
        : `${head}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return new Promise((resolve, reject) => {
      this.waiting = {
        resolve,
        reject: (error) => reject(new Error(`${method} ${path}: ${error.message}`, { cause: error })),
      };
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    const answer = this.parse();
    if (!answer) return;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(answer);
  }

  /** The answer once all of it is buffered (what follows it stays buffered), else undefined. */
  private parse(): HttpAnswer | undefined {
    const buffer = this.buffered!;
    const headEnd = buffer.indexOf(HEAD_END);
    if (headEnd < 0) return undefined;
    const head = buffer.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const start = headEnd + 4;
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (length) {
      const end = start + Number(length[1]);
      if (buffer.length < end) return undefined;
      this.buffered = buffer.length > end ? buffer.subarray(end) : undefined;
      return { status, head, body: buffer.toString('utf8', start, end) };
    }
    if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return this.chunked(buffer, status, head, start);
    // Neither: a bodiless answer (204, 304).
    this.buffered = buffer.length > start ? buffer.subarray(start) : undefined;
    return { status, head, body: '' };
  }

  private chunked(buffer: Buffer, status: number, head: string, start: number): HttpAnswer | undefined {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = buffer.indexOf(CRLF, at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buffer.toString('latin1', at, lineEnd), 16);
      const dataEnd = lineEnd + 2 + size;
      if (buffer.length < dataEnd + 2) return undefined;
      if (size === 0) {
        this.buffered = buffer.length > dataEnd + 2 ? buffer.subarray(dataEnd + 2) : undefined;
        return { status, head, body: Buffer.concat(parts).toString('utf8') };
      }
      parts.push(buffer.subarray(lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(this.failure);
  }
}
