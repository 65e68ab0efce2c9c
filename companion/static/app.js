/* Dice companion pages: ES modules served as they are (no build step, no framework, no CDN).
 * The module of each page is imported here, and the one named by the page's `data-page`
 * starts; the modules the pages share live in js/. Imported statically, the whole graph is
 * loaded before the page's load event, so a page is ready once it has loaded. Every page
 * fetches its state from /api and listens to /api/tables/CODE/events (server-sent events)
 * for changes; legality always comes from the server, and placements come as data
 * (`parts`), never parsed here. */
import * as check from "./js/pages/check.js";
import * as index from "./js/pages/index.js";
import * as sheet from "./js/pages/sheet.js";
import * as table from "./js/pages/table.js";
import * as teach from "./js/pages/teach.js";

const PAGES = { index, table, sheet, check, teach };

const page = PAGES[document.body.dataset.page];
if (page) page.start();
