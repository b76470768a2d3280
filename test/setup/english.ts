// The web app's modules speak through Lingui: in tests, as on a first visit, English is active
// and messages are read as the browser reads them.
import '../../src/web/i18n/i18n.js';
