package dev.listwatch.leader;

import tools.jackson.databind.node.ObjectNode;

/**
 * A Lease as last read or written: its leader-election record, its resourceVersion (the
 * precondition of the next update) and the whole object (so that an update keeps what
 * others set, such as labels).
 *
 * @param record the record
 * @param resourceVersion the resourceVersion
 * @param object the whole object, never changed once made
 */
record Lease(LeaseRecord record, String resourceVersion, ObjectNode object) {
}
