/**
 * {@code bellwether run}: a node that runs any program while it leads, and makes sure the program is gone before
 * the leadership's validity ends, even when the runner itself dies.
 */
package io.bellwether.server.run;
