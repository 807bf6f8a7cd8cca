package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.RequestProgress;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;

/**
 * Lists with a paged GET and watches with a streamed {@code GET ...?watch=1}.
 *
 * @param <T> the Java type of the objects
 */
final class HttpListerWatcher<T> implements ListerWatcher<T> {

	/**
	 * What a metadata-only list asks for (client-go's metadata client, without a
	 * fallback).
	 */
	static final String METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

	/**
	 * What a metadata-only watch asks for: each event's object is a
	 * PartialObjectMetadata.
	 */
	static final String METADATA_WATCH_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

	private final ApiExchange exchange;

	private final Resource resource;

	private final ObjectDecoder<T> decoder;

	private final int maxEventBytes;

	HttpListerWatcher(ApiExchange exchange, Resource resource, ObjectDecoder<T> decoder, int maxEventBytes) {
		this.exchange = exchange;
		this.resource = resource;
		this.decoder = decoder;
		this.maxEventBytes = maxEventBytes;
	}

	/**
	 * Lists one page, decoding it as it streams in (see
	 * {@link ObjectDecoder#decodeList(InputStream, int)}): the page is never held whole,
	 * and the size limit holds for each item.
	 */
	@Override
	public ObjectList<T> list(ListOptions options) {
		String pathAndQuery = this.resource.path() + query(parameters(options, false));
		String request = "GET " + pathAndQuery;
		return this.exchange.exchange(pathAndQuery, accept(false), (response) -> {
			// each read that brings bytes is progress: a large list on a slow link is not
			// abandoned
			try (InputStream body = RequestProgress.reporting(response.getBody())) {
				return this.decoder.decodeList(body, this.maxEventBytes);
			}
			catch (JsonFrameReader.MalformedFrameException | DecodeException ex) {
				throw ApiErrors.decode(request, ex);
			}
			catch (IOException ex) {
				// a body that broke off, or ended inside the list
				throw ApiErrors.connection(request, ex);
			}
		}, true);
	}

	@Override
	public WatchStream<T> watch(ListOptions options) {
		String pathAndQuery = this.resource.path() + query(parameters(options, true));
		String request = "GET " + pathAndQuery;
		return this.exchange.exchange(pathAndQuery, accept(true), (response) -> {
			InputStream body;
			try {
				body = response.getBody();
			}
			catch (IOException ex) {
				response.close();
				throw ApiErrors.connection(request, ex);
			}
			return new HttpWatchStream<>(request, response, body, this.decoder, this.maxEventBytes);
		}, false);
	}

	@Override
	public Resource resource() {
		return this.resource;
	}

	/**
	 * The {@code Accept} header: plain JSON, or metadata alone (no fallback to whole
	 * objects: a server that cannot serve metadata alone answers 406 rather than sending
	 * the bodies).
	 */
	private String accept(boolean watch) {
		if (!this.decoder.metadataOnly()) {
			return MediaType.APPLICATION_JSON_VALUE;
		}
		return watch ? METADATA_WATCH_ACCEPT : METADATA_LIST_ACCEPT;
	}

	private static Map<String, Object> parameters(ListOptions options, boolean watch) {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("labelSelector", blankToNull(options.labelSelector()));
		parameters.put("fieldSelector", blankToNull(options.fieldSelector()));
		if (!watch) {
			parameters.put("limit", options.limit());
			parameters.put("continue", blankToNull(options.continueToken()));
		}
		parameters.put("resourceVersion", options.resourceVersion());
		parameters.put("resourceVersionMatch", options.resourceVersionMatch());
		if (watch) {
			parameters.put("watch", "1");
			parameters.put("allowWatchBookmarks", options.allowWatchBookmarks());
			parameters.put("sendInitialEvents", options.sendInitialEvents());
		}
		if (options.timeout() != null) {
			parameters.put("timeoutSeconds", Math.max(1, options.timeout().toSeconds()));
		}
		return parameters;
	}

	static String query(Map<String, Object> parameters) {
		StringBuilder query = new StringBuilder();
		parameters.forEach((name, value) -> {
			if (value != null) {
				query.append((query.length() == 0) ? '?' : '&')
					.append(name)
					.append('=')
					.append(URLEncoder.encode(value.toString(), StandardCharsets.UTF_8));
			}
		});
		return query.toString();
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value;
	}

	@Override
	public String toString() {
		return "ListerWatcher[" + this.resource + (this.decoder.metadataOnly() ? ", metadata only" : "")
				+ (this.decoder.compressesObjects() ? ", objects compressed" : "") + "]";
	}

}
