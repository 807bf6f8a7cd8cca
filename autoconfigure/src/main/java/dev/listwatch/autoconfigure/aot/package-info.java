/**
 * Ahead-of-time processing support: the runtime hints listwatch and the types of the
 * declared watches need in a native image.
 */
@NullMarked
package dev.listwatch.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
