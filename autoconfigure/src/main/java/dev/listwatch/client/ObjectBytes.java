package dev.listwatch.client;

import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;

/**
 * One object's JSON read the way the API server path reads each object of a list: its
 * envelope ({@code apiVersion}, {@code kind}) and metadata in one pass, everything else
 * skipped by a byte scan (not tokenized), and its bytes copied without
 * {@code metadata.managedFields} unless asked to keep them. For the objects of other
 * sources (etcd values). Strings and label sets that repeat are shared across the objects
 * one instance reads. Thread-safe.
 */
public final class ObjectBytes {

	private final Interner interner = new Interner();

	/**
	 * What a read found.
	 *
	 * @param apiVersion the object's apiVersion, or {@code null}
	 * @param kind the object's kind, or {@code null}
	 * @param meta namespace, name, uid and labels as the object's metadata has them
	 * ({@code null} when absent; the resourceVersion as written, if any)
	 * @param json the object's bytes, without managedFields unless they were kept
	 */
	public record Read(@Nullable String apiVersion, @Nullable String kind, ObjectMeta meta, byte[] json) {

	}

	/**
	 * Reads one JSON object.
	 * @param value the bytes: one JSON object, whitespace around it allowed
	 * @param keepManagedFields whether the bytes keep {@code metadata.managedFields}
	 * @return what was read, or {@code null} when the bytes are not one JSON object as
	 * far as the scan sees (the caller reads them more strictly to say why)
	 */
	public @Nullable Read read(byte[] value, boolean keepManagedFields) {
		int start = 0;
		while (start < value.length
				&& (value[start] == ' ' || value[start] == '\n' || value[start] == '\r' || value[start] == '\t')) {
			start++;
		}
		if (start >= value.length || value[start] != '{') {
			return null;
		}
		try {
			JsonScanner json = new JsonScanner(value, start, value.length - start);
			ObjectScan scan = new ObjectScan(this.interner);
			scan.start = start;
			scan.readObject(json);
			scan.end = json.position();
			json.expectEnd();
			return new Read(this.interner.intern(scan.apiVersion), this.interner.intern(scan.kind), scan.meta(),
					scan.bytes(value, 0, keepManagedFields));
		}
		catch (DecodeException ex) {
			return null;
		}
	}

}
