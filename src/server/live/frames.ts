/**
 * WebSocket text frames made by hand (RFC 6455 §5.2), for frames written to many sockets: a
 * server's frames are never masked, so the same bytes serve every socket of a group. One frame,
 * not fragmented: FIN set, opcode 1 (text), then the payload length in 7 bits, or 126 and 16 bits,
 * or 127 and 64 bits (network byte order), then the UTF-8 payload.
 */

const FIN_TEXT = 0x81;
/** Longest payload whose length fits the first length byte, bytes. */
const SHORT_LENGTH_MAX = 125;
const MEDIUM_LENGTH = 126;
const LONG_LENGTH = 127;
const MEDIUM_LENGTH_MAX = 0xffff;

export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const headerBytes = headerBytesFor(length);
  const frame = Buffer.allocUnsafe(headerBytes + length);
  writeHeader(frame, length, headerBytes);
  frame.write(text, headerBytes, 'utf8');
  return frame;
}

/**
 * The first bytes of a text frame whose payload is `head` followed by `payloadBytes − head.length`
 * bytes written after it (a payload shared by several frames: live/corked.ts SharedFrame).
 */
export function textFrameStart(head: Buffer, payloadBytes: number): Buffer {
  const headerBytes = headerBytesFor(payloadBytes);
  const start = Buffer.allocUnsafe(headerBytes + head.length);
  writeHeader(start, payloadBytes, headerBytes);
  head.copy(start, headerBytes);
  return start;
}

function headerBytesFor(length: number): number {
  return length <= SHORT_LENGTH_MAX ? 2 : length <= MEDIUM_LENGTH_MAX ? 4 : 10;
}

function writeHeader(frame: Buffer, length: number, headerBytes: number): void {
  frame[0] = FIN_TEXT;
  if (headerBytes === 2) {
    frame[1] = length;
  } else if (headerBytes === 4) {
    frame[1] = MEDIUM_LENGTH;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = LONG_LENGTH;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
}
