/** `npm run bench`: every benchmark in turn; each prints its figures. */
import { benchApi } from "./api.js";

await benchApi();
