# A Gradescope autograder image, built from the zip the way Gradescope's manual-docker guide
# does (gradescope/autograder_samples, manual_docker/Dockerfile): the zip's contents in
# /autograder/source, run_autograder copied to /autograder/run_autograder, setup.sh run once as root.
ARG BASE=judge-platform-base:bookworm
FROM ${BASE}
ADD source /autograder/source
RUN cp /autograder/source/run_autograder /autograder/run_autograder && chmod +x /autograder/run_autograder
RUN apt-get update && bash /autograder/source/setup.sh && apt-get clean && rm -rf /var/lib/apt/lists/* /var/tmp/*
WORKDIR /autograder
CMD ["/autograder/run_autograder"]
