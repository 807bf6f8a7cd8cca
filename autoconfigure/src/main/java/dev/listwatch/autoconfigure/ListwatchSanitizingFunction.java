package dev.listwatch.autoconfigure;

import java.util.Locale;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Hides listwatch's secrets wherever the actuator shows property values
 * ({@code /actuator/configprops} and {@code /actuator/env} with
 * {@code management.endpoint.*.show-values} set to {@code always} or
 * {@code when-authorized}): {@code listwatch.connection.token}, and any other
 * {@code listwatch.*} property named like a credential (last segment {@code token},
 * {@code password} or {@code passphrase}, or ending in {@code secret} or
 * {@code key-data}), so that properties added later are covered too.
 *
 * <p>
 * Every spelling Spring Boot binds is recognized: {@code listwatch.connection.token},
 * {@code LISTWATCH_CONNECTION_TOKEN}, camel case. Paths to files ({@code token-file},
 * {@code certificate-authority}) and public material ({@code certificate-authority-data})
 * are shown.
 */
final class ListwatchSanitizingFunction implements SanitizingFunction {

	private static final String PREFIX = "listwatch.";

	/**
	 * Also listwatch.etcd.client-key, which may hold the PEM text of a private key rather
	 * than its path.
	 */
	private static final Set<String> SECRET_NAMES = Set.of("token", "password", "passphrase", "clientkey");

	@Override
	public SanitizableData apply(SanitizableData data) {
		return (data.getValue() != null && isSecret(data.getKey())) ? data.withSanitizedValue() : data;
	}

	/**
	 * Whether a property name holds a listwatch secret.
	 * @param key the property name in any form Boot binds, or {@code null}
	 * @return whether its value must be hidden
	 */
	static boolean isSecret(String key) {
		if (key == null) {
			return false;
		}
		String canonical = key.toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
		if (!canonical.startsWith(PREFIX)) {
			return false;
		}
		String name = canonical.substring(canonical.lastIndexOf('.') + 1);
		return SECRET_NAMES.contains(name) || name.endsWith("secret") || name.endsWith("keydata");
	}

}
