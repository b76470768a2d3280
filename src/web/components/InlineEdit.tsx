/**
 * Inline editing: click to edit; Enter or Save commits; Escape or Cancel reverts.
 * Leaving the field (clicking elsewhere, tabbing away) commits too, so a typed edit is not lost.
 */
import { useLingui } from '@lingui/react/macro';
import { Check, X } from './icons/index.js';
import {
  useLayoutEffect,
  useRef,
  useState,
  type ChangeEvent,
  type FocusEvent,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';

interface InlineEditProps {
  /** The current value as text. */
  value: string;
  /** Called with the raw text; the caller parses, validates and skips unchanged values. */
  onCommit: (text: string) => void;
  /** What the field is, e.g. "Counter name": the input's label and the button's name prefix. */
  label: string;
  placeholder?: string;
  /** Shown instead of the plain value when not editing. */
  children?: ReactNode;
  inputMode?: 'text' | 'numeric';
  maxLength?: number;
  /** Classes of the display button (font size, weight, alignment). */
  className?: string;
  /** Classes of the input while editing. */
  inputClassName?: string;
  /** Also shrink the editor to its content (steps) instead of filling the width. */
  compact?: boolean;
  /**
   * Edit in a box that wraps the text as it is shown, growing a line at a time, with Save and
   * Cancel under it: a name or a description longer than one line stays in sight while edited.
   * Enter still saves; the text stays one paragraph.
   */
  multiline?: boolean;
  /**
   * View-only access: the value as plain text, nothing that looks editable (no hover, no
   * placeholder: an empty value shows nothing).
   */
  readOnly?: boolean;
}

export function InlineEdit({
  value,
  onCommit,
  label,
  placeholder,
  children,
  inputMode = 'text',
  maxLength,
  className = '',
  inputClassName = '',
  compact = false,
  multiline = false,
  readOnly = false,
}: InlineEditProps) {
  const { t } = useLingui();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(value);
  /** The shown text's width when editing started, px: the box is never narrower than its text. */
  const [shownWidth, setShownWidth] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const inputRef = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const finished = useRef(false);
  const returnFocus = useRef(false);

  // Focus follows the mode: into the input when editing starts (the user just asked to edit this
  // field), back to the display button after Enter, Escape, Save or Cancel (`autoFocus` covers only
  // the first half). A layout effect, so focus moves before the next paint, in the same task as
  // the click or key press.
  useLayoutEffect(() => {
    if (editing) {
      inputRef.current?.focus();
    } else if (returnFocus.current) {
      returnFocus.current = false;
      buttonRef.current?.focus();
    }
  }, [editing]);

  // A wrapping box is as tall as its lines (field-sizing is not in every browser yet).
  useLayoutEffect(() => {
    const box = inputRef.current;
    if (!editing || !multiline || box === null) return;
    box.style.height = 'auto';
    box.style.height = `${box.scrollHeight + box.offsetHeight - box.clientHeight}px`;
  }, [editing, multiline, draft]);

  const start = () => {
    finished.current = false;
    setShownWidth(Math.ceil(buttonRef.current?.getBoundingClientRect().width ?? 0));
    setDraft(value);
    setEditing(true);
  };

  const finish = (commit: boolean, refocus: boolean) => {
    if (finished.current) return;
    finished.current = true;
    returnFocus.current = refocus;
    setEditing(false);
    if (commit) onCommit(draft);
  };

  if (readOnly) {
    if (value === '' && children === undefined) return null;
    return (
      <span data-field={label} className={`break-words ${className}`}>
        {children ?? value}
      </span>
    );
  }

  if (!editing) {
    const shown = value === '' ? (placeholder ?? '') : value;
    return (
      <button
        ref={buttonRef}
        type="button"
        onClick={start}
        aria-label={`${label}: ${shown}`}
        title={t`Click to edit`}
        className={`inline-display ${
          // A placeholder is a hint on one line; a value wraps between words.
          value === '' ? 'whitespace-nowrap text-zinc-500 italic dark:text-zinc-400' : ''
        } ${className}`}
      >
        {children ?? shown}
      </button>
    );
  }

  const keep = (event: MouseEvent) => {
    // Keep focus in the input so its blur does not commit before Cancel runs.
    event.preventDefault();
  };

  const field = {
    ref: inputRef,
    value: draft,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      // A pasted line break would be a paragraph the shown text does not have.
      setDraft(multiline ? event.target.value.replace(/\s*[\r\n]+\s*/g, ' ') : event.target.value);
    },
    onFocus: (event: FocusEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      event.currentTarget.select();
    },
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        finish(true, true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        finish(false, true);
      }
    },
    onBlur: () => {
      finish(true, false);
    },
    'aria-label': label,
    placeholder,
    inputMode,
    maxLength,
    autoComplete: 'off',
    spellCheck: inputMode === 'text',
  };

  return (
    // A one-line box grows with what is typed and starts at least as wide as the text it replaces;
    // when that leaves no room beside it, Save and Cancel go to the next line instead of
    // squeezing it. A wrapping box takes the whole width, Save and Cancel under it.
    <span
      className={`flex-wrap items-center gap-1 ${
        compact ? 'inline-flex max-w-full' : multiline ? 'flex w-full justify-end' : 'flex w-full'
      }`}
    >
      {multiline ? (
        <textarea
          {...field}
          rows={1}
          className={`inline-input w-full resize-none ${inputClassName}`}
        />
      ) : (
        <input
          {...field}
          // The shown text's width plus the box's own padding, border and caret (24 px).
          style={{ minWidth: `min(100%, ${Math.max(shownWidth + 24, compact ? 48 : 96)}px)` }}
          className={`inline-input grow [field-sizing:content] ${inputClassName}`}
        />
      )}
      <button
        type="button"
        aria-label={t`Save`}
        title={t`Save`}
        onMouseDown={keep}
        onClick={() => {
          finish(true, true);
        }}
        className="mini-btn mini-save"
      >
        <Check className="size-4" />
      </button>
      <button
        type="button"
        aria-label={t`Cancel`}
        title={t`Cancel`}
        onMouseDown={keep}
        onClick={() => {
          finish(false, true);
        }}
        className="mini-btn mini-cancel"
      >
        <X className="size-4" />
      </button>
    </span>
  );
}
