/** How long an image may take to load before it counts as failed, ms. */
export const IMAGE_CHECK_TIMEOUT_MS = 10_000;

/** SPEC §4/§5: an image URL is only saved once the browser has actually loaded it. */
export function imageLoads(url: string, timeoutMs = IMAGE_CHECK_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const image = new Image();
    // The page URL carries the access key: never send it as a referrer to image hosts.
    image.referrerPolicy = 'no-referrer';
    const timer = setTimeout(() => {
      finish(false);
    }, timeoutMs);
    function finish(ok: boolean) {
      clearTimeout(timer);
      image.onload = null;
      image.onerror = null;
      resolve(ok);
    }
    image.onload = () => {
      finish(image.naturalWidth > 0 || url.toLowerCase().includes('.svg'));
    };
    image.onerror = () => {
      finish(false);
    };
    image.src = url;
  });
}
