import { icon } from './icon.js';

/** Show the group's QR code (the share dialog). */
export const QrCode = icon(
  'M3 3h6v6H3zM15 3h6v6h-6zM3 15h6v6H3zM15 15h2v2h-2zm4 4h2v2h-2zM13 3v2m0 4v4H3m18 0h-4',
);
