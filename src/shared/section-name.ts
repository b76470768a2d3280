/**
 * A section named in a path or a body (PUT …/sections/{section}, a tap link's scope): sanitised
 * text cut to the section name's length; blank is refused. On its own so that modules the API
 * schemas import (links.ts) can use it too.
 */
import { z } from 'zod';
import { SECTION_NAME_MAX_LENGTH } from './limits.js';
import { MESSAGES } from './messages.js';
import { sanitizeText } from './rules.js';

/** Raw text cap before sanitising, characters (the API's RAW_TEXT_MAX). */
const RAW_SECTION_MAX = 10_000;

export const SectionNameSchema = z
  .string()
  .max(RAW_SECTION_MAX)
  .transform(sanitizeText)
  .transform((text) => Array.from(text).slice(0, SECTION_NAME_MAX_LENGTH).join(''))
  .refine((text) => text !== '', { error: MESSAGES.sectionNameEmpty });
