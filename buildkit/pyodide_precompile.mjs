// Run pyodide_precompile.py inside Pyodide in Node, with the project mounted at /host:
//   node pyodide_precompile.mjs PYODIDE_MJS_URL PROJECT_ROOT PROGRAM_PATH JOBS_JSON
import { readFileSync } from 'node:fs';

const [pyodideModule, root, program, jobs] = process.argv.slice(2);
const { loadPyodide } = await import(pyodideModule);
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree('/host');
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, '/host');
pyodide.runPython(readFileSync(program, 'utf8'), { filename: program });
pyodide.globals.get('main')(jobs);
