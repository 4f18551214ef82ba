/** Where the published per-seed figures live (committed; the docs' tables are generated from it). */
export const PUBLISHED_FILE = 'lab/published.json';
/** How many seeds the published figures take (seeds 1 to 20). */
export const PUBLISHED_SEEDS = 20;
/** The command that writes {@link PUBLISHED_FILE} and regenerates the docs from it. */
export const PUBLISH_COMMAND = 'npm run lab:publish';
