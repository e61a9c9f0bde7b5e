# The Java image: Debian's OpenJDK 17 (the headless JDK and its runtime,
# with the runtime's class data sharing archive; less jmods), unpacked
# from pinned .debs, java and javac linked into /usr/bin, /tmp 1777, and
# the runner as entrypoint. No shell, no package manager. Built by
# scripts/build-image.sh java (scripts/compiler-root.sh). The language
# label, a JSON object: the source's file name in the program's working
# directory, the command that compiles it there once, and the command
# each run starts. One CPU's worth of threads, the serial collector, and
# no perf data (else the JVM writes /tmp/hsperfdata_*).
FROM scratch
LABEL io.synapse-isolation.language="{\"source\":\"Main.java\",\"compile\":[\"javac\",\"-J-XX:ActiveProcessorCount=1\",\"-J-XX:+UseSerialGC\",\"-J-XX:-UsePerfData\",\"-J-XX:TieredStopAtLevel=1\",\"-encoding\",\"UTF-8\",\"Main.java\"],\"run\":[\"java\",\"-XX:ActiveProcessorCount=1\",\"-XX:+UseSerialGC\",\"-XX:-UsePerfData\",\"-Xss64m\",\"-Dfile.encoding=UTF-8\",\"-cp\",\".\",\"Main\"]}"
COPY root/ /
COPY runner /runner
USER 65534:65534
ENTRYPOINT ["/runner"]
