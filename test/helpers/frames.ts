/**
 * Reads back a server's unmasked, unfragmented WebSocket text frame (RFC 6455 §5.2): the text of
 * a SharedFrame (src/server/live/frames.ts), so tests see what a browser would.
 */
import type { SharedFrame } from '../../src/server/live/corked.js';

export function frameText(frame: string | SharedFrame): string {
  if (typeof frame === 'string') return frame;
  const bytes = frame.rest ? Buffer.concat([frame.bytes, frame.rest]) : frame.bytes;
  if (bytes[0] !== 0x81) throw new Error(`not a final text frame: first byte ${bytes[0]}`);
  const short = (bytes[1] ?? 0) & 0x7f;
  if ((bytes[1] ?? 0) & 0x80) throw new Error('a server frame must not be masked');
  let length = short;
  let offset = 2;
  if (short === 126) {
    length = bytes.readUInt16BE(2);
    offset = 4;
  } else if (short === 127) {
    length = Number(bytes.readBigUInt64BE(2));
    offset = 10;
  }
  if (bytes.length !== offset + length) {
    throw new Error(`frame of ${bytes.length} bytes announces ${offset + length}`);
  }
  return bytes.subarray(offset).toString('utf8');
}
