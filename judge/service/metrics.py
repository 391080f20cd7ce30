"""Prometheus metrics.  Judging figures come from the store, so they are the same whichever
process (embedded thread or Celery worker) stored a verdict, and they survive restarts."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from judge.service.store import Store
from judge.service.worker_slots import SlotRegistry

disable_created_metrics()

#: The HTTP methods the service answers; any other is a 405 counted under :data:`OTHER_METHOD`, so a client
#: cannot create a series per made-up method (every label of the request metrics comes from a closed set:
#: these methods, the app's route templates or ``unmatched``, and the status codes).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "OTHER"


class StoreCollector(Collector):
    def __init__(self, store: Store, backend_health=None, slots: SlotRegistry | None = None) -> None:  # noqa: ANN001
        self.store = store
        self.backend_health = backend_health
        self.slots = slots

    def collect(self):  # noqa: ANN201
        stats = self.store.stats()
        depth = GaugeMetricFamily("judge_queue_depth", "Submissions accepted and not yet judged", labels=["state"])
        for state in ("queued", "running"):
            depth.add_metric([state], stats["states"][state])
        yield depth
        yield GaugeMetricFamily("judge_queue_oldest_seconds",
                                "How long the oldest queued submission has waited (0 when none waits)",
                                value=self.store.oldest_queued_age(time.time()))
        verdicts = CounterMetricFamily("judge_verdicts", "Verdicts stored, by status", labels=["status"])
        for status, count in sorted(stats["statuses"].items()):
            verdicts.add_metric([status], count)
        yield verdicts
        callbacks = GaugeMetricFamily("judge_callbacks", "Submissions by callback delivery state", labels=["state"])
        for state, count in sorted(stats["callbacks"].items()):
            callbacks.add_metric([state], count)
        yield callbacks
        lat = stats["latency"]
        buckets = [(repr(float(b)), n) for b, n in lat["buckets"]] + [("+Inf", lat["count"])]
        yield HistogramMetricFamily("judge_submission_latency_seconds",
                                    "From acceptance to stored verdict", buckets=buckets, sum_value=lat["sum"])
        if self.backend_health is not None:
            try:
                health = self.backend_health()
            except Exception:  # noqa: BLE001
                health = {}
            if "broker_queue" in health:
                yield GaugeMetricFamily("judge_broker_queue_depth", "Messages waiting in the broker queue",
                                        value=health["broker_queue"])
            if "busy" in health:
                yield GaugeMetricFamily("judge_embedded_workers_busy", "Embedded workers judging now",
                                        value=health["busy"])
            yield from self._slots(health)

    def _slots(self, health: dict):  # noqa: ANN202
        """Busy and idle worker slots: the embedded workers of this server, or every ``judge worker`` that beat
        in the last :data:`~judge.service.worker_slots.STALE_SECONDS` (an autoscaler scales on these)."""
        if "busy" in health and "workers" in health:
            workers, busy, idle = 1, int(health["busy"]), max(0, int(health["workers"]) - int(health["busy"]))
        elif self.slots is not None:
            fleet = self.slots.fleet()
            workers, busy, idle = fleet.workers, fleet.busy, fleet.idle
        else:
            return
        slots = GaugeMetricFamily("judge_worker_slots", "Submissions workers can judge at once, by state",
                                  labels=["state"])
        slots.add_metric(["busy"], busy)
        slots.add_metric(["idle"], idle)
        yield slots
        yield GaugeMetricFamily("judge_workers", "Worker processes alive (judge worker, or this server's "
                                "embedded pool)", value=workers)


class Metrics:
    def __init__(self, store: Store, backend_health=None, slots: SlotRegistry | None = None) -> None:  # noqa: ANN001
        self.registry = CollectorRegistry()
        self.registry.register(StoreCollector(store, backend_health, slots))
        self.requests = Counter("judge_http_requests", "HTTP requests", ["method", "route", "code"],
                                registry=self.registry)
        self.request_seconds = Histogram("judge_http_request_seconds", "HTTP request duration", ["route"],
                                         registry=self.registry,
                                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))

    def observe(self, method: str, route: str, code: int, started: float) -> None:
        method = method if method in METHODS else OTHER_METHOD
        self.requests.labels(method, route, str(code) if 100 <= code <= 599 else "other").inc()
        self.request_seconds.labels(route).observe(time.perf_counter() - started)
