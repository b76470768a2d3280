/**
 * SPEC §4 inline editing: click to edit; Enter or Save commits; Escape or Cancel reverts.
 * Leaving the field (clicking elsewhere, tabbing away) commits too, so a typed edit is not lost.
 */
import { Check, X } from './icons.js';
import { useLayoutEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';

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
  /** View-only access: the value as plain text, not editable. */
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
  readOnly = false,
}: InlineEditProps) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(value);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const finished = useRef(false);
  const returnFocus = useRef(false);

  // Focus follows the mode: into the input when editing starts (the user just asked to edit this
  // field), back to the display button after Enter, Escape, Save or Cancel. Not `autoFocus`:
  // Preact only sets the autofocus attribute, which a browser honours once per page. A layout
  // effect, so focus moves in the same task as the click or key press (Preact runs plain effects
  // a frame later).
  useLayoutEffect(() => {
    if (editing) {
      inputRef.current?.focus();
    } else if (returnFocus.current) {
      returnFocus.current = false;
      buttonRef.current?.focus();
    }
  }, [editing]);

  const start = () => {
    finished.current = false;
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
    const shown = value === '' ? (placeholder ?? '') : value;
    return (
      <span
        data-field={label}
        className={`inline-display cursor-default ${
          value === '' ? 'text-zinc-500 italic dark:text-zinc-400' : ''
        } ${className}`}
      >
        {children ?? shown}
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
        title="Click to edit"
        className={`inline-display ${
          value === '' ? 'text-zinc-500 italic dark:text-zinc-400' : ''
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

  return (
    <span className={`flex items-center gap-1 ${compact ? 'inline-flex' : 'w-full'}`}>
      <input
        ref={inputRef}
        value={draft}
        onChange={(event) => {
          setDraft(event.target.value);
        }}
        onFocus={(event) => {
          event.currentTarget.select();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            finish(true, true);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            event.stopPropagation();
            finish(false, true);
          }
        }}
        onBlur={() => {
          finish(true, false);
        }}
        aria-label={label}
        placeholder={placeholder}
        inputMode={inputMode}
        maxLength={maxLength}
        autoComplete="off"
        spellCheck={inputMode === 'text'}
        className={`inline-input ${compact ? 'w-20' : 'flex-1'} ${inputClassName}`}
      />
      <button
        type="button"
        aria-label="Save"
        title="Save"
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
        aria-label="Cancel"
        title="Cancel"
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
