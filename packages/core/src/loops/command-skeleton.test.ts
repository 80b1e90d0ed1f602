import { describe, expect, test } from "bun:test"
import { commandArguments, commandCore, commandSkeleton, isLookCommand, isPollCommand, searchQuestion, waitSecondsOf } from "./command-skeleton.js"

describe("commandSkeleton", () => {
  test("varying arguments are masked: passwords, versions, package names, numbers, paths", () => {
    const same = (a: string, b: string) => expect([a, commandSkeleton(a)]).toEqual([a, commandSkeleton(b)])
    same("unzip -P guess1 f.zip", "unzip -P hunter2 f.zip")
    same("unzip -o -P abc secret.zip", "unzip -o -P xyz secret.zip")
    same("7z x -y -ppassword backup.7z", "7z x -y -pdragon backup.7z")
    same("pip install torch==1.9.0", "pip install torch==2.0.1")
    same("pip install --no-cache-dir flask==1.0", "pip install --no-cache-dir django==3.2")
    same("python solve.py 17", "python solve.py 18")
    same("python3 solve.py 17 --verbose", "python3 solve.py 999 --verbose")
    same("cd /app && timeout 60 ./run.sh --seed 1", "cd /srv && timeout 30 ./run.sh --seed 2")
    same("curl -s http://localhost:8080/health", "curl -s http://localhost:3000/api")
    same("make -j8 2>&1 | tail -20", "make -j4 2>&1 | tail -5")
    same("nohup python train.py --lr 0.1 > log 2>&1 &", "nohup python train.py --lr 0.3 > log 2>&1 &")
    same("bash -lc pip install a==1", "pip install b==2")
  })

  test("the program, its subcommand, flags and the script keep commands apart", () => {
    const differ = (a: string, b: string) => expect([a, commandSkeleton(a)]).not.toEqual([a, commandSkeleton(b)])
    differ("pip install x", "pip uninstall x")
    differ("python solve.py 1", "python check.py 1")
    differ("unzip -P a f.zip", "unzip -l f.zip")
    differ("git commit -m x", "git push origin main")
    differ("curl -s localhost", "curl -v localhost")
  })

  test("inline code is the script: different snippets differ, the same snippet with other numbers does not", () => {
    expect(commandSkeleton(`python3 -c "import numpy; print(1)"`)).not.toBe(commandSkeleton(`python3 -c "import pandas; print(1)"`))
    expect(commandSkeleton(`python3 -c "print(solve(17))"`)).toBe(commandSkeleton(`python3 -c "print(solve(18))"`))
  })

  test("commands that only show something, or nothing at all, have no skeleton", () => {
    for (const c of ["cat a.py", "ls -la src", "grep -rn foo . | head", "cd /app && cat x", "cat x 2>&1 | head -5", "ls &> out.txt", "", "   "]) expect([c, commandSkeleton(c)]).toEqual([c, ""])
    expect(commandSkeleton("cat a.py | python check.py")).not.toBe("")
  })

  test("a heredoc body is not the command's shape; quotes do not split it", () => {
    expect(commandSkeleton("python3 - <<'EOF'\nprint(1)\nEOF")).toBe(commandSkeleton("python3 - <<'EOF'\nimport os; os.system('x')\nEOF"))
    expect(commandSkeleton(`git commit -m "fix: a; b && c"`)).toBe("git commit -m <a>")
  })
})

describe("commandArguments", () => {
  test("the values an output may echo back, flags' values included", () => {
    expect(commandArguments("unzip -P hunter2 f.zip")).toEqual(["hunter2", "f.zip"])
    expect(commandArguments("steghide extract -sf a.jpg --passphrase=abc")).toEqual(["extract", "a.jpg", "abc"])
    expect(commandArguments("FOO=1 python solve.py 17")).toEqual(["solve.py", "17"])
  })
})

describe("commandSkeleton of a database query", () => {
  test("a query that only reads is a question (no skeleton); one that writes, or pipes into a file, is not", () => {
    for (const c of [`psql $DATABASE_URL -c "select * from orders where order_ref='ORD-1'"`, "mysql -u app -e 'SHOW TABLES'", `sqlite3 app.db "SELECT count(*) FROM jobs"`, `psql -c '\\dt'`]) expect([c, commandSkeleton(c)]).toEqual([c, ""])
    for (const c of [`psql $DATABASE_URL -c "delete from orders where id=1"`, `psql -c "select 1" > out.txt`, `psql -f migrate.sql`, `mysql -e 'select 1; drop table t'`]) expect(commandSkeleton(c)).not.toBe("")
  })
})

describe("isPollCommand", () => {
  test("waiting on or looking at a running job", () => {
    for (const c of ["docker compose logs --tail 2 db", "docker-compose ps", "docker logs web | tail -n 5", "sleep 10 && kubectl get pods", "systemctl status nginx", "sleep 30 && gh run view 9876543", "gh run watch 42 --exit-status", "sleep 60; curl -s http://localhost:8080/status", "sleep 2 && curl localhost:8000"]) expect([c, isPollCommand(c)]).toEqual([c, true])
    for (const c of ["", "sleep 30 && tail -n 20 train.log", "sleep 5; tail log.txt", "tail -n 3 /tmp/job.log", "ps aux | grep node", "jobs", "wait", "sleep 60"]) expect([c, isPollCommand(c)]).toEqual([c, true])
  })
  test("commands that wait for a job themselves, kubectl's flags before its verb skipped", () => {
    for (const c of ["kubectl -n staging rollout status deploy/api --timeout=60s", "kubectl wait --for=condition=ready pod -l app=api", "kubectl --context prod -n web get pods", "pg_isready -h localhost -p 5432"]) expect([c, isPollCommand(c)]).toEqual([c, true])
    expect(isPollCommand("kubectl -n staging rollout restart deploy/api")).toBe(false)
  })
  test("a deploy or cloud CLI asked for a status after a sleep polls; asked alone, it only looks", () => {
    const after = ["sleep 15 && rabbitmqctl list_queues name messages | grep reindex", "sleep 20 && fly status --app shop-api", "sleep 30 && aws ecs describe-services --cluster prod --services orders", "sleep 15; gcloud run services describe api --region eu", "sleep 10 && helm status api", "sleep 30 && argocd app get api"]
    for (const c of after) expect([c, isPollCommand(c)]).toEqual([c, true])
    for (const c of ["fly status --app shop-api", "sleep 20 && fly deploy", "sleep 5 && aws ecs update-service --cluster prod", "sleep 5 && npm test", "sleep 5 && pytest -x tests/test_status.py", "sleep 5 && pytest tests/test_api.py -k status", "sleep 5 && python manage.py test --tag status"]) expect([c, isPollCommand(c)]).toEqual([c, false])
  })
  test("a project's own status script after a sleep polls; alone it looks; a script named otherwise does neither", () => {
    for (const c of ["sleep 3 && ./ci-status.sh", "sleep 10; scripts/check_health.py --env prod", "sleep 5 && ./deploy-status", "sleep 30 && bin/progress.sh job-42"]) expect([c, isPollCommand(c)]).toEqual([c, true])
    expect(isLookCommand("./ci-status.sh")).toBe(true)
    for (const c of ["./ci-status.sh", "sleep 3 && ./deploy.sh", "sleep 3 && ./statusbar-build.sh", "sleep 5 && ./run.sh status"]) expect([c, isPollCommand(c)]).toEqual([c, c === "sleep 5 && ./run.sh status"])
  })
  test("isLookCommand: a line that only looks, waiting or not", () => {
    for (const c of ["curl -sf http://localhost:8080/health", "tail -n 3 /tmp/api.log", "fly status --app api", "sleep 5 && kubectl get pods", "cat a.txt | grep x", `psql -h localhost -U app -c 'select 1'`, "mysqladmin -h 127.0.0.1 ping", "docker compose exec -T db mysqladmin ping"]) expect([c, isLookCommand(c)]).toEqual([c, true])
    for (const c of ["", "curl -X POST localhost:8080/jobs", "make deploy", "npm test", "tail log && npm start"]) expect([c, isLookCommand(c)]).toEqual([c, false])
  })
  test("a command named as an object's own property is just a command", () => {
    for (const c of ["__proto__ x", "constructor get", "toString", "hasOwnProperty run view"]) expect([c, isPollCommand(c)]).toEqual([c, false])
  })
  test("doing something is no poll, even after a sleep", () => {
    for (const c of ["sleep 2 && curl -X POST localhost:8000/jobs", "sleep 2 && curl -d x=1 localhost:8000", "sleep 5 && gh run rerun 42", "python train.py", "cat a.py", "ls", "sleep 1 && pip install x"]) expect([c, isPollCommand(c)]).toEqual([c, false])
  })
})

describe("waitSecondsOf", () => {
  test("the seconds a command line sleeps before it looks", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["sleep 30 && gh run view 42", 30],
      ["sleep 0.5; curl -s localhost:3000/health", 0.5],
      ["sleep 2m && kubectl get pods", 120],
      ["timeout 5 sleep 10 && tail log", 10],
      ["sleep 5; tail a; sleep 5; tail b", 10],
      ["gh run view 42", 0],
      ["kubectl -n staging rollout status deploy/api --timeout=90s", 90],
      ["kubectl rollout status deploy/api --timeout 2m", 120],
      ["kubectl wait --for=condition=ready pod/x", 30],
      ["pg_isready -h localhost", 30],
      ["kubectl -n staging rollout restart deploy/api", 0],
      ["echo sleep 30", 0],
      ["sleep $DELAY && tail log", 0],
      ["timeout 110 gh run watch 42 --exit-status", 110],
      ["gh run watch 42", 60],
      ["gh pr checks 7 --watch", 60],
      ["gh pr checks 7", 0],
      ["timeout 60 npm test", 0]
    ]
    for (const [c, seconds] of cases) expect([c, waitSecondsOf(c)]).toEqual([c, seconds])
  })
})

describe("commandCore", () => {
  test("the run without the viewers its output is piped through; pipes in quotes and compound lines kept", () => {
    expect(commandCore("npx vitest run src/cart.test.ts 2>&1 | tail -n 20")).toBe("npx vitest run src/cart.test.ts")
    expect(commandCore(`npx vitest run a.ts 2>&1 | grep -E "Tests|Files"`)).toBe("npx vitest run a.ts")
    expect(commandCore("npx vitest run a.ts | sed -n 1,6p | head -3")).toBe("npx vitest run a.ts")
    for (const kept of ["cat a | python x.py", "make && make test | tail", `grep -E "a|b" f`, "pytest -x", "a\nb | tail"]) expect(commandCore(kept)).toBe(kept)
  })
})

describe("searchQuestion", () => {
  test("the pattern (folded) and the paths a search asks about, whatever program and flags ask it", () => {
    expect(searchQuestion("grep -rn initTelemetry .")).toBe("search inittelemetry in .")
    for (const c of ["rg -i --hidden initTelemetry", "git grep -n 'initTelemetry'", "ag init_telemetry", "grep -R --include='*.ts' initTelemetry ./", "cd app && rg -e initTelemetry | head -5"]) {
      expect([c, searchQuestion(c)]).toEqual([c, "search inittelemetry in ."])
    }
    expect(searchQuestion("grep -rn 'retry delay' ./src/ test")).toBe("search retrydelay in src test")
    expect(searchQuestion("rg -A 3 -t ts initTelemetry src")).toBe("search inittelemetry in src")
    expect(searchQuestion("ls src")).toBeNull()
    expect(searchQuestion("grep -rn")).toBeNull()
  })

  test("git grep is a lookup like grep: it has no skeleton", () => {
    expect(commandSkeleton("git grep -n initTelemetry")).toBe("")
    expect(commandSkeleton("git commit -m x")).not.toBe("")
  })
})
