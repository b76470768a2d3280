/**
 * Copies text. navigator.clipboard exists only in secure contexts (https, localhost); over plain
 * http the old execCommand path still works in every current browser.
 */
export async function copyText(text: string): Promise<void> {
  // Undefined outside secure contexts, whatever the DOM typings say.
  const clipboard = navigator.clipboard as Clipboard | undefined;
  if (clipboard) {
    await clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- fallback for insecure contexts
    if (!document.execCommand('copy')) throw new Error('Copy command was refused');
  } finally {
    area.remove();
  }
}
