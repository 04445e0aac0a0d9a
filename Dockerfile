# Multi-stage build of the game server.
#   docker build -t ludo-server .
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p server --bin ludo-server

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/ludo-server /usr/local/bin/ludo-server
COPY --from=build /src/web /srv/web
ENV LUDO_BIND=0.0.0.0:8080 LUDO_WEB_DIR=/srv/web
EXPOSE 8080
USER nobody
ENTRYPOINT ["/usr/local/bin/ludo-server"]
