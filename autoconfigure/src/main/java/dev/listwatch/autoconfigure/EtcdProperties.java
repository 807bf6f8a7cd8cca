package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.etcd.EtcdClient;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * Where etcd is, for watches with {@code source: etcd} ({@code listwatch.etcd.*}).
 */
@ConfigurationProperties("listwatch.etcd")
public class EtcdProperties {

	/**
	 * etcd's client URLs, for example http://127.0.0.1:2379 (https:// for TLS). Requests
	 * go to one until it cannot be reached, then to the next. Setting it enables etcd
	 * watches.
	 */
	private List<String> endpoints = new ArrayList<>();

	/**
	 * Path of the PEM file (or the PEM text) of the certificate authorities that sign
	 * etcd's serving certificate. Default: the JVM's trust store.
	 */
	private @Nullable String certificateAuthority;

	/**
	 * Path of the PEM file (or the PEM text) of the client certificate, for etcd's
	 * --client-cert-auth. Needs client-key.
	 */
	private @Nullable String clientCertificate;

	/**
	 * Path of the PEM file (or the PEM text) of the client certificate's private key
	 * (PKCS#1, PKCS#8 or SEC1). Needs client-certificate.
	 */
	private @Nullable String clientKey;

	/**
	 * etcd user to authenticate as (etcd's auth, /v3/auth/authenticate); the token is
	 * renewed when etcd rejects it.
	 */
	private @Nullable String username;

	/**
	 * Password of the etcd user. Hidden by the actuator, never logged.
	 */
	private @Nullable String password;

	/**
	 * etcd's --watch-progress-notify-interval (10 minutes unless etcd was started with
	 * another). No longer used: an etcd watch asks etcd for progress itself when it has
	 * heard nothing for a third of listwatch.defaults.idle-timeout, so a quiet prefix's
	 * revision moves with etcd's without waiting for etcd's notification, and a watch
	 * whose progress requests go unanswered for the idle timeout is given up as a dead
	 * (half-open) connection. Set listwatch.defaults.idle-timeout to find a dead watch
	 * sooner or later.
	 */
	private Duration progressNotifyInterval = Duration.ofMinutes(10);

	/**
	 * Timeout to establish a connection to etcd.
	 */
	private Duration connectTimeout = Duration.ofSeconds(10);

	/**
	 * How to reach etcd: "auto" (etcd's native gRPC API when grpc-java and a transport
	 * for it, such as io.grpc:grpc-netty-shaded, are on the class path, else the JSON
	 * gateway), "grpc" (fails at start-up without them) or "gateway" (etcd's JSON gateway
	 * over the JDK HTTP client, no extra dependency; about 5x more etcd CPU per event).
	 */
	private EtcdClient.Protocol protocol = EtcdClient.Protocol.AUTO;

	public EtcdClient.Protocol getProtocol() {
		return this.protocol;
	}

	public void setProtocol(EtcdClient.Protocol protocol) {
		this.protocol = protocol;
	}

	@Deprecated(since = "0.1")
	@DeprecatedConfigurationProperty(
			reason = "etcd watches ask etcd for progress themselves; their dead-connection timeout is "
					+ "listwatch.defaults.idle-timeout")
	public Duration getProgressNotifyInterval() {
		return this.progressNotifyInterval;
	}

	@Deprecated(since = "0.1")
	public void setProgressNotifyInterval(Duration progressNotifyInterval) {
		this.progressNotifyInterval = progressNotifyInterval;
	}

	public List<String> getEndpoints() {
		return this.endpoints;
	}

	public void setEndpoints(List<String> endpoints) {
		this.endpoints = endpoints;
	}

	public @Nullable String getCertificateAuthority() {
		return this.certificateAuthority;
	}

	public void setCertificateAuthority(@Nullable String certificateAuthority) {
		this.certificateAuthority = certificateAuthority;
	}

	public @Nullable String getClientCertificate() {
		return this.clientCertificate;
	}

	public void setClientCertificate(@Nullable String clientCertificate) {
		this.clientCertificate = clientCertificate;
	}

	public @Nullable String getClientKey() {
		return this.clientKey;
	}

	public void setClientKey(@Nullable String clientKey) {
		this.clientKey = clientKey;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

}
