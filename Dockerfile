# syntax=docker/dockerfile:1
# Build: docker build -t debatebot .
# Run:   docker run -p 8080:8080 --env-file debatebot.env debatebot
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.Version=${VERSION}" -o /out/debatebot ./cmd/debatebot

# A static binary on a distroless base, as an unprivileged user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/debatebot /usr/local/bin/debatebot
USER nonroot:nonroot
ENV DEBATEBOT_ADDR=:8080 DEBATEBOT_DATABASE_URL=sqlite:/tmp/debatebot.db
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/debatebot"]
CMD ["serve"]
