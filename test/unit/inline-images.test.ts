/** The reference page's stylesheet rewrite: data: images out, files in (routes/inline-images.ts). */
import { describe, expect, it } from 'vitest';
import { moveInlineImages } from '../../src/server/routes/inline-images.js';

describe('moveInlineImages', () => {
  it('moves quoted, escaped, percent-encoded and base64 images to numbered files', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><path fill="#fff"/></svg>';
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const css = [
      `.a{background:url("data:image/svg+xml;charset=utf-8,${svg.replaceAll('"', '\\"').replace('#', '%23')}") no-repeat}`,
      `.b{background-image:url('data:image/png;base64,${png.toString('base64')}')}`,
      `.c{background-image:url(data:image/png;base64,${png.toString('base64')})}`,
    ].join('\n');

    const { css: rewritten, images } = moveInlineImages(css, 'images/');

    expect(rewritten).toBe(
      [
        '.a{background:url(images/1.svg) no-repeat}',
        '.b{background-image:url(images/2.png)}',
        '.c{background-image:url(images/3.png)}',
      ].join('\n'),
    );
    expect(images.get('1.svg')).toEqual({
      type: 'image/svg+xml;charset=utf-8',
      body: Buffer.from(svg),
    });
    expect(images.get('2.png')).toEqual({ type: 'image/png', body: png });
    expect(images.size).toBe(3);
  });

  it('leaves other URLs, unknown types and undecodable data as they were', () => {
    const css = [
      '.a{background:url(/img/x.png)}',
      '.b{background:url("https://example.com/y.svg")}',
      '.c{background:url(data:text/plain,hello)}',
      '.d{background:url("data:image/svg+xml,%E0%A4%A")}',
    ].join('\n');

    const { css: rewritten, images } = moveInlineImages(css, 'images/');

    expect(rewritten).toBe(css);
    expect(images.size).toBe(0);
  });
});
