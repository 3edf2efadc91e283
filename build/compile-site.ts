/** `npm run site`: compiles the site now (a build otherwise compiles it on first use). */
import { compileSite } from './site.ts';

const dir = await compileSite({ log: (line) => console.error(line) });
console.log(dir);
