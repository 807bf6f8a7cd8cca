package dev.listwatch;

import org.jspecify.annotations.Nullable;

/**
 * The Kubernetes API {@code Status} object (meta/v1) that accompanies a failed request or
 * an ERROR watch event.
 *
 * @param code the HTTP status code it stands for, {@code 0} when absent
 * @param reason the machine-readable reason, for example {@code Expired}, {@code Gone},
 * {@code Forbidden}; may be {@code null}
 * @param message the human-readable message; may be {@code null}
 */
public record Status(int code, @Nullable String reason, @Nullable String message) {

	@Override
	public String toString() {
		return this.code + " " + ((this.reason != null) ? this.reason : "") + ": "
				+ ((this.message != null) ? this.message : "");
	}

}
