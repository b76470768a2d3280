/**
 * Tally's icons, one module each, drawn by ./icon.tsx. Components import them from here and draw no
 * svg of their own: a new icon gets its own module in this folder and a line below, so the same
 * picture is never drawn twice in different files.
 *
 * One module per icon keeps each icon in the chunk of the code that shows it: the landing page
 * does not download the group screen's icons, and no screen's first load carries those of the
 * activity panel, the share dialog or reorder mode, which load later. That takes ./package.json's
 * "sideEffects": false: without it the bundler counts every module re-exported here as used
 * wherever this file is imported and puts all the icons in the entry chunk (measured when this
 * was written: 1.1 KB gzip more on the first load of the landing page and of the display, 0.2 KB
 * on the group screen).
 */
export { ArrowDown } from './ArrowDown.js';
export { ArrowDownToLine } from './ArrowDownToLine.js';
export { ArrowRight } from './ArrowRight.js';
export { ArrowUp } from './ArrowUp.js';
export { ArrowsUpDown } from './ArrowsUpDown.js';
export { Ban } from './Ban.js';
export { Bell } from './Bell.js';
export { ChartLine } from './ChartLine.js';
export { Check } from './Check.js';
export { CircleAlert } from './CircleAlert.js';
export { Clock } from './Clock.js';
export { CloudOff } from './CloudOff.js';
export { Copy } from './Copy.js';
export { Eye } from './Eye.js';
export { Flag } from './Flag.js';
export { Gauge } from './Gauge.js';
export { Grip } from './Grip.js';
export { History } from './History.js';
export { House } from './House.js';
export { ImageOff } from './ImageOff.js';
export { ImagePlus } from './ImagePlus.js';
export { Key } from './Key.js';
export { Languages } from './Languages.js';
export { Loader } from './Loader.js';
export { Maximize } from './Maximize.js';
export { Minus } from './Minus.js';
export { Moon } from './Moon.js';
export { MoreVertical } from './MoreVertical.js';
export { Pencil } from './Pencil.js';
export { Plus } from './Plus.js';
export { QrCode } from './QrCode.js';
export { RotateCcw } from './RotateCcw.js';
export { Share } from './Share.js';
export { Sliders } from './Sliders.js';
export { Sun } from './Sun.js';
export { Trash } from './Trash.js';
export { TriangleAlert } from './TriangleAlert.js';
export { Trophy } from './Trophy.js';
export { Undo } from './Undo.js';
export { Users } from './Users.js';
export { WifiOff } from './WifiOff.js';
export { X } from './X.js';
