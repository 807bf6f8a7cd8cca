package dev.listwatch.metrics;

import java.util.concurrent.TimeUnit;

import dev.listwatch.client.RequestBudget;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the meters of the connection's {@link RequestBudget}, without tags (one
 * connection). They read the budget's counters, so nothing counted before binding is
 * lost.
 * <ul>
 * <li>{@code listwatch.client.requests} (counter): requests sent through the budget (list
 * pages, watch starts, discovery, reads and writes);</li>
 * <li>{@code listwatch.client.throttled} (counter): requests that waited for a
 * token;</li>
 * <li>{@code listwatch.client.throttle.duration} (function timer): the time they
 * waited.</li>
 * </ul>
 */
public final class RequestBudgetMeterBinder implements MeterBinder {

	private final RequestBudget budget;

	/**
	 * Makes a binder for a budget.
	 * @param budget the budget, e.g. {@code ApiServerClient.requestBudget()}
	 */
	public RequestBudgetMeterBinder(RequestBudget budget) {
		this.budget = budget;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("listwatch.client.requests", this.budget, RequestBudget::requests)
			.description("Requests sent to the API server through the request budget")
			.baseUnit("requests")
			.register(registry);
		FunctionCounter.builder("listwatch.client.throttled", this.budget, RequestBudget::throttled)
			.description("Requests that waited for the request budget (listwatch.connection.qps and burst)")
			.baseUnit("requests")
			.register(registry);
		FunctionTimer
			.builder("listwatch.client.throttle.duration", this.budget, RequestBudget::throttled,
					(b) -> b.waited().toNanos(), TimeUnit.NANOSECONDS)
			.description("Time requests waited for the request budget")
			.register(registry);
	}

}
