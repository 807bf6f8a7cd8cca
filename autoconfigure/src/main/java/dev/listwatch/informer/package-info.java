/**
 * The watch machinery, one station as client-go's {@code tools/cache} is one package: the
 * reflector (list, then watch; resume, relist on 410, backoff, idle detection), the store
 * (the indexed cache, label and field selectors), the dispatcher and the informer that
 * runs them. Public here: {@link dev.listwatch.informer.Informer},
 * {@link dev.listwatch.informer.InformerFactory},
 * {@link dev.listwatch.informer.InformerOptions} and
 * {@link dev.listwatch.informer.WatchDeclaration}; the rest is package-private.
 */
@NullMarked
package dev.listwatch.informer;

import org.jspecify.annotations.NullMarked;
