import { t } from '@lingui/core/macro';

/** How long an image may take to load before it counts as failed, ms. */
export const IMAGE_CHECK_TIMEOUT_MS = 10_000;

/**
 * Said under a refused or failing address that was not typed in full: "icons/a.png" reads as the
 * host "icons"; only a whole address, or a path from this site's root, says what is meant.
 */
export const fullAddressHint = () =>
  t`Enter a full address starting with https://, or a path on this site starting with /.`;

/** An image URL is only saved once the browser has actually loaded it. */
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
