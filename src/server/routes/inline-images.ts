/**
 * Swagger UI's stylesheet draws its icons from `data:` URLs, which Tally's Content-Security-Policy
 * refuses (img-src 'self' https: http:). Rather than loosen the policy for the reference page,
 * each inline image is moved to a file of its own, served from the same origin, and the
 * stylesheet points at it.
 */

export interface ImageFile {
  /** Content-Type of the file, e.g. `image/svg+xml;charset=utf-8`. */
  type: string;
  body: Buffer;
}

/** `url(...)` in CSS: double-quoted, single-quoted (either with backslash escapes), or bare. */
const CSS_URL = /url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)"'\s]*))\s*\)/g;

/** `data:[<media type>][;base64],<data>` (RFC 2397). */
const DATA_URL = /^data:([^,]*?)(;base64)?,(.*)$/s;

const EXTENSIONS: Record<string, string> = {
  'image/svg+xml': 'svg',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * The stylesheet with every `data:` image replaced by `url(<base><n>.<ext>)`, and the files to
 * serve under those names. A data URL that cannot be decoded is left as it was (the reference
 * page's browser test then reports the policy violation).
 */
export function moveInlineImages(
  css: string,
  base: string,
): { css: string; images: Map<string, ImageFile> } {
  const images = new Map<string, ImageFile>();
  const rewritten = css.replace(CSS_URL, (whole, ...captures: unknown[]) => {
    // The URL, double-quoted, single-quoted or bare: whichever of the three groups matched.
    const [doubleQuoted, singleQuoted, bare] = captures as (string | undefined)[];
    // In CSS a backslash escapes the next character (here: quotes inside the SVG markup).
    const value = (doubleQuoted ?? singleQuoted ?? bare ?? '').replace(/\\(.)/gs, '$1');
    const image = decodeDataUrl(value);
    if (image === undefined) return whole;
    const extension = EXTENSIONS[image.type.split(';')[0]?.trim().toLowerCase() ?? ''];
    if (extension === undefined) return whole;
    const file = `${images.size + 1}.${extension}`;
    images.set(file, image);
    return `url(${base}${file})`;
  });
  return { css: rewritten, images };
}

function decodeDataUrl(value: string): ImageFile | undefined {
  const match = DATA_URL.exec(value);
  if (!match) return undefined;
  const [, mediaType = '', base64, data = ''] = match;
  try {
    return {
      type: mediaType === '' ? 'text/plain' : mediaType,
      body: base64 ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponent(data), 'utf8'),
    };
  } catch {
    return undefined;
  }
}
