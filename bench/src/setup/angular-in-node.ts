// Angular and the libraries ship partially compiled code (`ɵɵngDeclare*`); in Node it is linked at
// load time by the JIT compiler, which must therefore be loaded before them. The linked code is the
// same that the build-time linker produces, so the figures are those of an AOT build.
import './prod-mode';
import '@angular/compiler';
