/**
 * Class names of the shared look (defined with @apply in styles.css, so the long Tailwind lists
 * are CSS, not JavaScript).
 */
export const primaryButton = 'btn btn-primary';
export const secondaryButton = 'btn btn-secondary';
export const dangerButton = 'btn btn-danger';
export const iconButton = 'icon-btn';
export const textInput = 'field';
export const card = 'card';
export const mutedText = 'muted';
export const errorText = 'error-text';
