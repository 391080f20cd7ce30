"""Prometheus metrics.  Judging figures come from the store, so they are the same whichever
process (embedded thread or Celery worker) stored a verdict, and they survive restarts."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from judge.service.store import Store

disable_created_metrics()


class StoreCollector(Collector):
    def __init__(self, store: Store, backend_health=None) -> None:  # noqa: ANN001
        self.store = store
        self.backend_health = backend_health

    def collect(self):  # noqa: ANN201
        stats = self.store.stats()
        depth = GaugeMetricFamily("judge_queue_depth", "Submissions accepted and not yet judged", labels=["state"])
        for state in ("queued", "running"):
            depth.add_metric([state], stats["states"][state])
        yield depth
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


class Metrics:
    def __init__(self, store: Store, backend_health=None) -> None:  # noqa: ANN001
        self.registry = CollectorRegistry()
        self.registry.register(StoreCollector(store, backend_health))
        self.requests = Counter("judge_http_requests", "HTTP requests", ["method", "route", "code"],
                                registry=self.registry)
        self.request_seconds = Histogram("judge_http_request_seconds", "HTTP request duration", ["route"],
                                         registry=self.registry,
                                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))

    def observe(self, method: str, route: str, code: int, started: float) -> None:
        self.requests.labels(method, route, str(code)).inc()
        self.request_seconds.labels(route).observe(time.perf_counter() - started)
