/** The public entry of src/cli: the command line as a function (bin.ts is the installed command around it). */
export { main } from "./main";
